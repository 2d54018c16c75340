"""What a search matches (docs/search.md, "What it matches"): words, prefixes, phrases, identifiers split at
camelCase, snake_case and dots, accents and case folded; in titles, descriptions, contents and comments."""
import pytest

from ...helpers import create_diagram
from .conftest import hit_of, titles

SERVICE = "sequenceDiagram\n  Client->>OrderService: orderService.create(cart)\n  OrderService-->>Client: ok\n"


@pytest.fixture
def diagrams(user, project):
    made = {}
    for title, fields in {
        "Checkout": {"content": SERVICE},
        "Ledger": {"content": "erDiagram\n  payment_gateway ||--o{ invoice_line : bills\n"},
        "Facturación": {"content": "graph TD\n  A[Emitir factura] --> B[Cobrar]", "description": "Facturación mensual"},
        "Plain words": {"content": "graph LR\n  start --> service --> order --> stop"},
        "HTTP": {"content": "graph TD\n  HTTPServer --> parseJSONBody"},
    }.items():
        made[title] = create_diagram(user, project["id"], title=title, **fields)
    return made


@pytest.mark.parametrize("q, expected", [
    ("OrderService", ["Checkout"]),
    ("orderservice", ["Checkout"]),
    ("order_service", ["Checkout"]),
    ("order service", ["Checkout", "Plain words"]),
    ("orderService.create", ["Checkout"]),
    ("orderservice.create", ["Checkout"]),
    ("create", ["Checkout"]),
    ("payment gateway", ["Ledger"]),
    ("paymentGateway", ["Ledger"]),
    ("PaymentGateway", ["Ledger"]),
    ("invoice_line", ["Ledger"]),
    ("InvoiceLine", ["Ledger"]),
    ("http server", ["HTTP"]),
    ("HttpServer", ["HTTP"]),
    ("json", ["HTTP"]),
    ("parse json body", ["HTTP"]),
], ids=lambda value: value if isinstance(value, str) else None)
def test_identifiers_match_by_their_camel_snake_and_dotted_parts(user, diagrams, q, expected):
    assert sorted(titles(user, q)) == sorted(expected)


@pytest.mark.parametrize("q, expected", [
    ("facturación", ["Facturación"]),
    ("facturacion", ["Facturación"]),
    ("FACTURACION", ["Facturación"]),
    ("EMITIR Factura", ["Facturación"]),
    ("cobrar", ["Facturación"]),
], ids=lambda value: value if isinstance(value, str) else None)
def test_accents_and_case_do_not_count(user, diagrams, q, expected):
    assert titles(user, q) == expected


def test_a_prefix_matches_the_beginning_of_a_word_and_a_bare_word_only_whole_words(user, diagrams):
    assert titles(user, "pay*") == ["Ledger"]
    assert titles(user, "pay") == []
    assert titles(user, "paym* gate*") == ["Ledger"]
    assert titles(user, "orderServ*") == ["Checkout"]
    assert titles(user, "fact*") == ["Facturación"]


def test_a_phrase_needs_its_words_one_after_the_other(user, diagrams):
    assert titles(user, '"emitir factura"') == ["Facturación"]
    assert titles(user, '"factura emitir"') == []
    assert sorted(titles(user, "factura emitir")) == ["Facturación"]
    assert titles(user, '"order stop"') == ["Plain words"]
    assert titles(user, '"stop order"') == []
    assert titles(user, '"emitir fact"*') == ["Facturación"]


def test_every_word_of_a_search_must_match_somewhere_in_the_diagram(user, diagrams):
    assert titles(user, "checkout create") == ["Checkout"]
    assert titles(user, "checkout ledger") == []


def test_a_hit_says_where_it_is_and_shows_the_match_in_a_snippet(user, project, diagrams):
    hit = hit_of(user, "orderService.create", "Checkout")
    assert set(hit) == {"diagram_id", "project_id", "workspace_id", "title", "diagram_type", "path", "snippet",
                        "matches", "score", "updated_at"}
    assert hit["diagram_id"] == diagrams["Checkout"]["id"] and hit["project_id"] == project["id"]
    assert hit["workspace_id"] == project["workspace_id"] and hit["diagram_type"] == "mermaid"
    assert hit["path"] == "Checkout.mmd"
    marked = [hit["snippet"][match["start"]:match["end"]] for match in hit["matches"]]
    assert marked == ["orderService.create"], hit
    assert len(hit["snippet"]) <= 202 and "\n" not in hit["snippet"]


def test_a_snippet_marks_every_match_inside_it(user, diagrams):
    hit = hit_of(user, "service", "Checkout")
    marked = [hit["snippet"][match["start"]:match["end"]] for match in hit["matches"]]
    assert marked == ["Service", "Service", "Service"], hit


def test_descriptions_and_comments_are_searched(user, diagrams):
    hit = hit_of(user, "mensual", "Facturación")
    assert hit["snippet"] == "Facturación mensual"
    assert hit["matches"] == [{"start": 12, "end": 19}]
    response = user.post(f"/diagrams/{diagrams['Ledger']['id']}/comments", json={"body": "Reconcile with the bank"})
    assert response.status_code == 201, response.json
    hit = hit_of(user, "reconcile", "Ledger")
    assert hit["snippet"] == "Reconcile with the bank" and hit["matches"] == [{"start": 0, "end": 9}]
