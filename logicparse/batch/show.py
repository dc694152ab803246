"""A Document made readable in a terminal (``logicparse shards show``): its sentences with the
keywords marked, then every relation with its key, alpha and beta spans. A shard may come from
anyone: every string field it holds passes through :func:`~logicparse.terminal.safe`."""

from __future__ import annotations

from ..terminal import safe
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
    return safe(" … ".join(pieces))


def render_document(doc: Document, console, labels: bool = False) -> None:
    from rich.text import Text

    head = Text()
    head.append(safe(doc.id) if doc.id else "(no id)", style="bold")
    head.append(f"  {len(doc.sentence_starts)} sentences, {len(doc.tokens)} tokens, "
                f"{len(doc.relations)} relations")
    console.print(head)
    if doc.error is not None:
        console.print(Text(f"FAILED: {safe(doc.error, lines=True)}", style="bold red"))
        console.print(Text(safe(doc.text[:2000], lines=True) + (" …" if len(doc.text) > 2000 else "")))
        return

    keyword_tokens = {t for r in doc.relations for a, b in r.key for t in range(a, b)}
    # Without a terminal (piped, redirected) styles vanish: keywords are marked *like this*.
    plain = not console.is_terminal
    for s, (a, b) in enumerate(doc.sentences):
        line = Text(f"[{s}] ", style="dim")
        for t in range(a, b):
            kw = t in keyword_tokens
            if t > a:
                line.append(" ")
            if plain and kw and (t == a or t - 1 not in keyword_tokens):
                line.append("*")
            line.append(safe(doc.tokens[t]), style=_ROLE_STYLE["key"] if kw else None)
            if plain and kw and (t + 1 == b or t + 1 not in keyword_tokens):
                line.append("*")
        console.print(line)

    console.print()
    for i, r in enumerate(doc.relations):
        line = Text(f"{i + 1:>3}. ", style="dim")
        line.append(safe(r.relation), style="bold")
        line.append(f"  ({safe(r.category)}, sentence {r.sentence}, depth {r.depth}, "
                    f"{safe(r.sense_source)} {r.confidence:.2f})", style="dim")
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
                console.print(Text(f"{t:>6} {safe(doc.tokens[t]):<16} {layers}"))
