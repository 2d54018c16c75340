"""Schemas of the change feed's routes."""
import marshmallow as ma
from flask_babel import gettext as _

from ..common import BaseSchema

ID = {"validate": ma.validate.Length(min=1, max=64)}


class StreamQuerySchema(BaseSchema):
    ticket = ma.fields.String(validate=ma.validate.Length(min=1, max=100),
                              metadata={"description": "A one-use ticket (POST /events/tickets) for clients that "
                                                       "cannot send the Authorization header (EventSource)"})


class TicketRequestSchema(BaseSchema):
    diagram_id = ma.fields.String(**ID)
    workspace_id = ma.fields.String(**ID)

    @ma.validates_schema
    def names_one_feed(self, data, **_kwargs):
        if ("diagram_id" in data) == ("workspace_id" in data):
            raise ma.ValidationError(_("Name either diagram_id or workspace_id."), "_schema")


class TicketSchema(BaseSchema):
    ticket = ma.fields.String(required=True)
    expires_in = ma.fields.Integer(required=True, metadata={"description": "Seconds the ticket stays valid"})


class ResumeHeadersSchema(BaseSchema):
    last_event_id = ma.fields.String(data_key="Last-Event-ID", validate=ma.validate.Length(max=64),
                                     metadata={"description": "The id of the last event received: the stream "
                                                              "starts with the events missed since (or `reset`)"})
