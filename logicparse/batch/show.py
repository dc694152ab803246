"""A Document made readable in a terminal (``logicparse shards show``): its sentences with the
keywords marked, then every relation with its key, alpha and beta spans."""

from __future__ import annotations

from ..tokens import Document

_ROLE_STYLE = {"key": "bold magenta", "alpha": "cyan", "beta": "green"}


def span_text(doc: Document, span: list[list[int]]) -> str:
    """The text a span covers; discontinuous pieces joined by ' … '."""
    pieces = []
    for a, b in span:
        if b <= a:
            continue
        if doc.text:
            pieces.append(doc.text[doc.token_starts[a]:doc.token_ends[b - 1]])
        else:
            pieces.append(" ".join(doc.tokens[a:b]))
    return " … ".join(pieces)


def render_document(doc: Document, console, labels: bool = False) -> None:
    from rich.text import Text

    head = Text()
    head.append(doc.id or "(no id)", style="bold")
    head.append(f"  {len(doc.sentence_starts)} sentences, {len(doc.tokens)} tokens, "
                f"{len(doc.relations)} relations")
    console.print(head)
    if doc.error is not None:
        console.print(Text(f"FAILED: {doc.error}", style="bold red"))
        console.print(Text(doc.text[:2000] + (" …" if len(doc.text) > 2000 else "")))
        return

    keyword_tokens = {t for r in doc.relations for a, b in r.key for t in range(a, b)}
    for s, (a, b) in enumerate(doc.sentences):
        line = Text(f"[{s}] ", style="dim")
        for t in range(a, b):
            if t > a:
                line.append(" ")
            line.append(doc.tokens[t], style=_ROLE_STYLE["key"] if t in keyword_tokens else None)
        console.print(line)

    console.print()
    for i, r in enumerate(doc.relations):
        line = Text(f"{i + 1:>3}. ", style="dim")
        line.append(r.relation, style="bold")
        line.append(f"  ({r.category}, sentence {r.sentence}, depth {r.depth}, "
                    f"{r.sense_source} {r.confidence:.2f})", style="dim")
        console.print(line)
        for role in ("key", "alpha", "beta"):
            span = getattr(r, role)
            if not span and role == "beta":
                continue
            row = Text(f"       {role:<5} ", style="dim")
            row.append(span_text(doc, span) or "(empty)", style=_ROLE_STYLE[role])
            console.print(row)

    if labels:
        from ..taxonomy import LABELS

        console.print()
        for t, ids in enumerate(doc.logic):
            if ids:
                layers = " > ".join(LABELS[i] for i in ids)
                console.print(Text(f"{t:>6} {doc.tokens[t]:<16} {layers}"))
