"""Dump plans give marshmallow's own results (the HTTP suite covers every response; these cover the edges)."""
from datetime import UTC, datetime
from types import SimpleNamespace

import marshmallow as ma

from trazo.api.common import BaseSchema, Timestamp
from trazo.api.fast_dump import dump_plan
from trazo.api.projects.schemas import ProjectWithDiagramsSchema

MOMENT = datetime(2026, 11, 22, 10, 30, 5, 123000, tzinfo=UTC)


class Inner(BaseSchema):
    label = ma.fields.String()
    size = ma.fields.Integer(dump_default=7)


class Plain(ma.Schema):
    note = ma.fields.String()


class Outer(BaseSchema):
    id = ma.fields.String()
    renamed = ma.fields.String(data_key="shown_as")
    source = ma.fields.String(attribute="elsewhere")
    flag = ma.fields.Boolean()
    ratio = ma.fields.Float()
    when = Timestamp()
    counts = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer())
    raw = ma.fields.Dict()
    tags = ma.fields.List(ma.fields.String())
    one = ma.fields.Nested(Inner)
    many = ma.fields.List(ma.fields.Nested(Inner))
    picked = ma.fields.Nested(Inner, only=("label",), many=True)
    plucked = ma.fields.Pluck(Inner, "label", many=True)
    plain = ma.fields.Nested(Plain)
    computed = ma.fields.Method("compute")
    constant = ma.fields.Function(lambda obj: "fixed")

    def compute(self, obj):
        return "computed"


def marshmallow_dump(schema, obj):
    """What marshmallow itself returns, plans switched off for this schema and every nested one."""
    original = BaseSchema._fast_plan
    BaseSchema._fast_plan = lambda self: None
    try:
        return type(schema)(many=schema.many).dump(obj)
    finally:
        BaseSchema._fast_plan = original


def sample(**changes):
    values = {"id": "p1", "renamed": "r", "elsewhere": "from attribute", "flag": 1, "ratio": 2,
              "when": MOMENT, "counts": {"mermaid": 3}, "raw": {"a": [1, 2]}, "tags": ["x", 5],
              "one": {"label": "inner", "size": "12"}, "many": [{"label": "a"}, SimpleNamespace(label="b", size=2)],
              "picked": [{"label": "c", "size": 9}], "plucked": [{"label": "d"}], "plain": {"note": "n", "other": 1}}
    values.update(changes)
    return values


def test_plans_match_marshmallow_for_dicts_objects_and_gaps():
    schema = Outer()
    assert dump_plan(schema) is not None
    cases = [sample(), SimpleNamespace(**sample()),
             sample(one=None, many=None, when=None, counts=None, tags=None, flag=None),
             {"id": "only an id"}, {}]
    for case in cases:
        assert schema.dump(case) == marshmallow_dump(schema, case)
    listed = Outer(many=True)
    assert listed.dump(cases) == marshmallow_dump(listed, cases)


def test_schemas_with_dump_hooks_keep_marshmallows_path():
    class Hooked(BaseSchema):
        name = ma.fields.String()

        @ma.post_dump
        def shout(self, data, **_kwargs):
            return {"name": data["name"].upper()}

    assert dump_plan(Hooked()) is None
    assert Hooked().dump({"name": "quiet"}) == {"name": "QUIET"}


def test_project_tree_dump_matches(app):
    diagram = {"id": "d1", "title": "T", "content": "graph TD", "description": None, "diagram_type": "mermaid",
               "config": {"background_color": "#fff", "background_pattern": "dots", "extra": 1},
               "user_preferences": None, "created_at": MOMENT, "updated_at": MOMENT}
    tree = {"id": "p", "name": "P", "description": None, "emoji": "📊", "user_id": "u", "diagram_count": 2,
            "diagram_type_counts": {"mermaid": 2}, "created_at": MOMENT, "updated_at": MOMENT,
            "diagrams": [diagram], "folders": [{"id": "f", "name": "F", "diagrams": [diagram]}]}
    schema = ProjectWithDiagramsSchema()
    assert schema.dump(tree) == marshmallow_dump(schema, tree)
    assert "extra" not in schema.dump(tree)["diagrams"][0]["config"]
