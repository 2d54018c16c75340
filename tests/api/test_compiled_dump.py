"""The hot reads' response schemas dump through a function compiled from their fields (api/compiled_dump.py):
it must give what marshmallow's own dump gives, on the answers the API serves and on the edge values a field
may meet, and fall back to marshmallow for what it does not compile."""
import datetime
from decimal import Decimal

import marshmallow as ma
import pytest

from trazo.api.common import BaseSchema, Timestamp
from trazo.api.compiled_dump import CompiledDump
from trazo.api.content_schemas import DiagramSchema
from trazo.api.projects.schemas import ProjectSchema, ProjectWithDiagramsSchema
from trazo.api.shares.schemas import SharedDiagramSchema, VerifiedDiagramSchema
from trazo.core.content import projects
from trazo.extensions import db

from ..helpers import create_diagram, create_folder, create_project, share


def marshmallows_own(schema):
    """`schema` with every compiled dump below it switched off: marshmallow's dump all the way down."""
    schema.__dict__["compiled_dump"] = None
    for field in schema.dump_fields.values():
        inner = field.inner if isinstance(field, ma.fields.List) else field
        if isinstance(inner, ma.fields.Nested) and isinstance(inner.schema, CompiledDump):
            marshmallows_own(inner.schema)
    return schema


class Inner(BaseSchema):
    flag = ma.fields.Boolean()
    size = ma.fields.Integer(allow_none=True)


class Plain(BaseSchema):
    name = ma.fields.String()
    count = ma.fields.Integer()
    ratio = ma.fields.Float()
    when = Timestamp(allow_none=True)
    counts = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer())
    anything = ma.fields.Dict()
    inner = ma.fields.Nested(Inner)
    inners = ma.fields.List(ma.fields.Nested(Inner))
    tags = ma.fields.List(ma.fields.String())
    renamed = ma.fields.String(attribute="source_name", data_key="shownName")


class CompiledInner(CompiledDump, Inner):
    pass


class Compiled(CompiledDump, Plain):
    inner = ma.fields.Nested(CompiledInner)
    inners = ma.fields.List(ma.fields.Nested(CompiledInner))


class Holder:
    def __init__(self, **values):
        self.__dict__.update(values)


MOMENT = datetime.datetime(2026, 11, 27, 9, 30, 1, 250, tzinfo=datetime.UTC)
EDGE_VALUES = [
    {},  # every key missing: every key left out
    {"name": None, "count": None, "ratio": None, "when": None, "counts": None, "anything": None, "inner": None,
     "inners": None, "tags": None, "source_name": None},
    {"name": b"bytes \xc3\xa9", "count": "7", "ratio": 2, "when": MOMENT, "counts": {1: "3", "b": 4.0},
     "anything": {"x": [1, {"y": None}]}, "inner": {"flag": "yes", "size": Decimal("3")},
     "inners": [{"flag": False}, {}, {"size": None}], "tags": [1, "two", None], "source_name": 12},
    {"name": "Señales 📊", "count": True, "ratio": Decimal("0.5"), "when": MOMENT.replace(tzinfo=None),
     "counts": {}, "anything": {}, "inner": {}, "inners": [], "tags": []},
]


@pytest.mark.parametrize("values", EDGE_VALUES)
def test_the_compiled_dump_gives_marshmallows_answer_on_edge_values(values):
    for obj in (values, Holder(**values)):
        assert Compiled().dump(obj) == Plain().dump(obj)
        assert Compiled(many=True).dump([obj, obj]) == Plain(many=True).dump([obj, obj])


def test_a_field_that_does_not_compile_keeps_marshmallows_dump():
    class Dotted(CompiledDump, BaseSchema):
        title = ma.fields.String(attribute="diagram.title")

    class Defaulted(CompiledDump, BaseSchema):
        count = ma.fields.Integer(dump_default=0)

    class Formatted(CompiledDump, BaseSchema):
        when = ma.fields.DateTime(format="%Y")

    for schema, obj in ((Dotted(), {"diagram": {"title": "T"}}), (Defaulted(), {}), (Formatted(), {"when": MOMENT})):
        assert schema.compiled_dumper() is None
        assert schema.dump(obj) == marshmallows_own(type(schema)()).dump(obj)
    assert Dotted().dump({"diagram": {"title": "T"}}) == {"title": "T"}
    assert Defaulted().dump({}) == {"count": 0}


def test_every_hot_response_schema_compiles():
    for schema in (ProjectSchema(), ProjectWithDiagramsSchema(), DiagramSchema(), SharedDiagramSchema(),
                   VerifiedDiagramSchema()):
        assert schema.compiled_dumper() is not None, type(schema).__name__


def test_the_served_answers_are_marshmallows_dumps_of_the_same_reads(app, user):
    project = create_project(user, name="Señales", description="<b>", emoji="🧭")
    folder = create_folder(user, project["id"], name="Zeta", color="#ff0000")
    first = create_diagram(user, project["id"], title="D1", description=None)
    create_diagram(user, project["id"], title="In folder", folder_id=folder["id"], diagram_type="d2",
                   content="a -> b")
    assert user.put(f"/diagrams/{first['id']}", json={
        "viewport_zoom": 1.5, "user_preferences": {"description_pinned": True, "chat_panel_width": 420},
        "config": {"background_color": "#000000", "background_pattern": "dots"}}).status_code == 200
    link = share(user, first["id"], allow_copy_code=True)

    served = {"list": user.get("/projects").json, "tree": user.get(f"/projects/{project['id']}").json,
              "diagram": user.get(f"/diagrams/{first['id']}").json,
              "shared": user.get(f"/shared/{link['token']}/diagram", token=None).json}
    with app.app_context():
        role, tree = projects.project_tree(user.id, project["id"])
        read = {"list": marshmallows_own(ProjectSchema(many=True)).dump(projects.counted_projects(user.id)),
                "tree": marshmallows_own(ProjectWithDiagramsSchema()).dump(tree),
                "diagram": marshmallows_own(DiagramSchema()).dump(projects.diagram(user.id, first["id"]))}
        db.session.remove()
    assert role == "owner"
    assert {name: served[name] for name in read} == read
    assert len(served["tree"]["folders"][0]["diagrams"]) == 1 and served["tree"]["diagrams"][0]["config"] == {
        "background_color": "#000000", "background_pattern": "dots"}
    assert served["shared"]["content"] == served["shared"]["rendered_content"] == "graph TD\n  A --> B"
