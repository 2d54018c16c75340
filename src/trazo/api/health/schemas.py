"""Service description and health report schemas."""
import marshmallow as ma

from ..common import BaseSchema


class ServiceInfoSchema(BaseSchema):
    name = ma.fields.String()
    message = ma.fields.String()
    version = ma.fields.String()
    environment = ma.fields.String()
    status = ma.fields.String()


class HealthSchema(BaseSchema):
    status = ma.fields.String()
    checks = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.String())
