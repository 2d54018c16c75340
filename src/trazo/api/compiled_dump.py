"""Response schemas of the hot reads that dump through a function built once from their fields
(docs/operations.md, "The hot read path").

marshmallow's `Schema.dump` walks each field of each object through several calls (get_value, serialize and
the field's conversion) and each nested object through another `dump`; for a project tree of 21 diagrams that
is about a third of the request. A schema that mixes in `CompiledDump` overrides `dump`, the public method
flask-smorest calls, with a function compiled from the schema's `dump_fields` on its first use: per field,
the value read as marshmallow reads it (a mapping's key, else the attribute; a missing one leaves the key
out) and the same conversion marshmallow's field applies (str, int, float, the DateTime format function,
dicts of keys and values, nested schemas, lists). A field of any other kind, a dotted `attribute`, a
`dump_default` or a number `as_string` makes the whole schema keep marshmallow's own dump. A schema that
mixes this in must declare no pre_dump or post_dump hook. The OpenAPI document does not change (apispec reads
the fields, not the dump); tests/api/test_compiled_dump.py checks both dumps agree on every such schema.
"""
from collections.abc import Mapping

import marshmallow as ma
from marshmallow.utils import ensure_text_type

from .common import Timestamp

MISSING = ma.missing


class Unsupported(Exception):
    """A field this module does not compile: the schema keeps marshmallow's dump."""


def _none_or(convert):
    return lambda value: None if value is None else convert(value)


def _unless(kind, convert):
    """`convert` (None kept), skipped for a value already of `kind` (what it would return unchanged)."""
    return lambda value: value if type(value) is kind or value is None else convert(value)


def _mapping(field):
    if field.key_field is None and field.value_field is None:
        return _none_or(field.mapping_type)
    key, value = (_converter(inner) or (lambda item: item) if inner is not None else (lambda item: item)
                  for inner in (field.key_field, field.value_field))

    def convert(mapping):
        if mapping is None:
            return None
        result = field.mapping_type()
        for name, item in mapping.items():
            result[key(name)] = value(item)
        return result

    return convert


def _nested(field):
    schema = field.schema
    many = bool(schema.many or field.many)
    dump = schema.compiled_dumper() if isinstance(schema, CompiledDump) else None
    if dump is None:
        return _none_or(lambda value: schema.dump(value, many=many))
    if many:
        return _none_or(lambda values: [dump(value) for value in values])
    return _none_or(dump)


def _converter(field):
    """The function marshmallow's `field` applies to a value it read (its `_serialize`)."""
    kind = type(field)
    if kind is ma.fields.String:
        return _unless(str, ensure_text_type)
    if kind in (ma.fields.Integer, ma.fields.Float):
        if field.as_string:
            raise Unsupported("a number as a string")
        return _unless(field.num_type, field.num_type)
    if kind in (ma.fields.Boolean, ma.fields.Raw):
        return None  # the value as it is
    if kind in (Timestamp, ma.fields.DateTime):
        formatted = kind.SERIALIZATION_FUNCS.get(field.format or kind.DEFAULT_FORMAT)
        if formatted is None:
            raise Unsupported("a strftime format")
        return _none_or(formatted)
    if kind is ma.fields.Dict:
        return _mapping(field)
    if kind is ma.fields.Nested:
        return _nested(field)
    if kind is ma.fields.List:
        item = _converter(field.inner)
        if item is None:
            return _none_or(list)
        return _none_or(lambda values: [item(value) for value in values])
    raise Unsupported(kind.__name__)


def compile_dumper(schema):
    """A function dumping one object as `schema.dump(obj, many=False)` does, or None when a field does not
    compile."""
    plan = []
    try:
        for name, field in schema.dump_fields.items():
            attribute = field.attribute or name
            if "." in attribute or field.dump_default is not MISSING:
                raise Unsupported(name)
            plan.append((field.data_key if field.data_key is not None else name, attribute, _converter(field)))
    except Unsupported:
        return None

    def dump(obj):
        """A mapping's keys (one that lacks a key leaves it out), else the object's attributes."""
        answer = {}
        if isinstance(obj, Mapping):
            for key, attribute, convert in plan:
                try:
                    value = obj[attribute]
                except KeyError:
                    continue
                answer[key] = value if convert is None else convert(value)
        else:
            for key, attribute, convert in plan:
                value = getattr(obj, attribute, MISSING)
                if value is not MISSING:
                    answer[key] = value if convert is None else convert(value)
        return answer

    return dump


class CompiledDump:
    """Mix into a response schema (before the Schema class) to dump through `compile_dumper`."""

    def compiled_dumper(self):
        if "compiled_dump" not in self.__dict__:
            self.__dict__["compiled_dump"] = compile_dumper(self)
        return self.__dict__["compiled_dump"]

    def dump(self, obj, *, many=None):
        dump = self.compiled_dumper()
        if dump is None:
            return super().dump(obj, many=many)
        if (self.many if many is None else many) and obj is not None:
            return [dump(each) for each in obj]
        return dump(obj)
