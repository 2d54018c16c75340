"""A request parser whose "files" location also reads the form fields sent in the same multipart body.

flask-smorest documents one request body per operation, so an upload with files and form fields is
declared as one schema; this parser lets that schema load both.
"""
from webargs.flaskparser import FlaskParser
from webargs.multidictproxy import MultiDictProxy
from werkzeug.datastructures import CombinedMultiDict


class MultipartParser(FlaskParser):
    def load_files(self, req, schema):
        # the proxy webargs gives every location, with this parser's list fields
        return MultiDictProxy(CombinedMultiDict([req.files, req.form]), schema,
                              known_multi_fields=tuple(self.KNOWN_MULTI_FIELDS))
