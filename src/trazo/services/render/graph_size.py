"""How many edges a Graphviz source draws, counted without laying it out.

Counting arrows is not enough: `a -> {b c d}` is one arrow and three edges, so a 72 KB source can ask
for a complete graph of 120 nodes (14,280 edges) that keeps `dot` busy for minutes. Here each edge
operation counts |left| x |right|, where a subgraph operand stands for every node it names.
"""
import re

# Each alternative is linear: an unterminated string or comment runs to the end and stops there.
_TOKEN = re.compile(r"""
      (?P<skip> \s+ | //[^\n]* | (?<![^\n])\#[^\n]* | /\*(?:[^*]|\*(?!/))*(?:\*/|\Z) )
    | (?P<edge> -> | -- )
    | (?P<id> "(?:[^"\\]|\\.)*(?:"|\Z) | [A-Za-z_\x80-\U0010ffff][\w\x80-\U0010ffff]* | -?(?:\.\d+|\d+(?:\.\d*)?) )
    | (?P<punct> [{}\[\];,=:] )
    | (?P<other> . )
""", re.VERBOSE | re.DOTALL)
_KEYWORDS = frozenset({"graph", "digraph", "strict", "node", "edge", "subgraph"})


class _Block:
    """One `{...}`: the nodes it names, and the operand waiting for the right side of an edge."""

    def __init__(self):
        self.nodes = set()
        self.left = None  # size of the last operand
        self.pending_edge = False


def count_edges(source):
    """The number of edges `source` asks Graphviz to draw (close, not exact, for unusual inputs)."""
    total = 0
    stack = [_Block()]
    bracket_depth = 0
    skip_id = False  # the next ID is a port, an attribute value or a subgraph's name
    operand = None  # the last token, when it was a node
    for match in _TOKEN.finditer(source):
        kind, text = match.lastgroup, match.group()
        if kind in ("skip", "other"):
            continue
        if bracket_depth:  # attribute lists name no nodes
            bracket_depth += {"[": 1, "]": -1}.get(text, 0)
            continue
        block, last, operand = stack[-1], operand, None
        if text == "[":
            bracket_depth = 1
        elif text == "{":
            skip_id = False
            stack.append(_Block())
        elif text == "}":
            if len(stack) > 1:
                total += _operand(stack[-2], stack.pop().nodes)
        elif kind == "edge":
            block.pending_edge = block.left is not None
        elif text == "=":  # `name = value` sets an attribute: neither side is a node
            block.nodes.discard(last)
            block.left, block.pending_edge, skip_id = None, False, True
        elif text == ":":
            skip_id = True
        elif text in (";", ","):
            block.left, block.pending_edge = None, False
        elif skip_id:
            skip_id = False
        elif text.lower() == "subgraph":
            skip_id = True
        elif text.lower() in _KEYWORDS:
            block.left, block.pending_edge = None, False
        else:
            total += _operand(block, {text})
            operand = text
    return total


def _operand(block, nodes):
    """Record an operand of `block`; the edges it closes (0 unless an edge operator came before it)."""
    edges = block.left * len(nodes) if block.pending_edge and block.left is not None else 0
    block.left, block.pending_edge = len(nodes), False
    if len(nodes) > len(block.nodes):  # merge the smaller set into the larger: deep nesting stays linear
        block.nodes, nodes = nodes, block.nodes
    block.nodes |= nodes
    return edges
