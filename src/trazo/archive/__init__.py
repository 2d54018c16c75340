"""The export and import formats (docs/export-format.md) as plain functions over bytes and data.

No Flask and no database here: the api layer (api/projects) reads the request and the database, passes
the limits, the gettext function of the request and a reader of the diagrams' texts, and turns
`reader.InvalidUpload` into its error answer.
"""
