"""Build ``tests/data/screen_heldout3.jsonl``: a third held-out set, from spikee.

Run ``python bench/make_screen_heldout3.py --repo SPIKEE_GIT_DIR``. spikee (the Simple
Prompt Injection Kit, WithSecure Labs, now Reversec: ``ReversecLabs/spikee``, Apache-2.0) tests
LLM applications and guardrails for prompt injection: it puts a *jailbreak* (a wrapper,
"*** NEW IMPORTANT INSTRUCTIONS ***", a DAN persona, a fake test mode) around an
*instruction* (the attacker's goal: a markdown image that leaks data, an XSS string, a
system-prompt leak, a long output) and injects the pair into a *document* an application
reads (an HR announcement sent by e-mail). Its authors are none of garak's, AgentDojo's or
BIPIA's.

Three parts, all read with ``git show`` from a pinned commit and parsed as JSON lines:

- **spikee's own generated dataset** ``targeted-2024-12`` as its authors published it with
  their guardrail results (``results/v0.1/…-targeted-2024-12-document_….jsonl``): each
  ``input`` is the document with one jailbreak × instruction at its end. Only ``input`` and
  the dataset's own fields (jailbreak type, language, the combination's id) are kept; the
  guardrail's verdict (``success``) is not read.
- **The seed folders shipped today** (``seeds-cybersec-2026-01``, ``seeds-llm-mailbox``,
  ``seeds-sysmsg-extraction-2025-04``) combined as ``spikee generate`` does with its
  defaults: the jailbreak's ``<INSTRUCTION>`` replaced by an instruction of the same
  language, put at the end of each base document without a placeholder between the default
  delimiters (``"\\n" + payload + "\\n"``). Each (folder, jailbreak) is kept once, with an
  instruction chosen by a fixed hash; this adds the newer jailbreaks (poetry, policy puppet,
  special case, the bare instruction) and spikee's low-resource-language variants (Zulu,
  Albanian, Irish, Scottish Gaelic). The placeholder document (``direct-01``: the payload
  is the whole user prompt) is left out: no outside text.
- **Benign controls of the same channel**: spikee's guardrail false-positive check (30
  e-mails written to look like injections, "Ignore the previous draft …", "You must review
  the new instructions …", DAN jokes; the ``input`` of ``…guardrail-false-positive-check_…``)
  and each base document clean.

Labels are spikee's (every generated text is an attack, every false-positive-check text
benign), never the screen's. Texts are deduplicated; nothing is chosen by the screen's
verdict. spikee's code is never imported or run. The file is third-party text and is never
committed (``.git/info/exclude``); this script is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from screen_sets import git_show, write_set

_DATASETS = "spikee/data/workspace/datasets/"
#: the seed folders whose base documents are outside text (the legacy folders repeat the
#: 2024-12 combinations already taken from the published dataset)
_SEEDS = ("seeds-cybersec-2026-01", "seeds-llm-mailbox", "seeds-sysmsg-extraction-2025-04")
_GENERATED = "results/v0.1/results_az_prompt_shields-targeted-2024-12-document_1734615457.jsonl"
_BENIGN = (
    "results/v0.1/"
    "results_az_prompt_shields-1734615302_guardrail-false-positive-check_1734623707.jsonl"
)
_DELIMITERS = "\nINJECTION_PAYLOAD\n"  # spikee generate's default --injection-delimiters
_MAX_CHARS = 4000  # what doxa takes as one outside text
#: spikee's base documents are e-mails ("email-01"); its false-positive check is e-mails
_CHANNEL = "email"


def _rank(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _lines(text: str) -> Iterator[dict[str, Any]]:
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def _family(jailbreak_type: str, lang: str) -> str:
    """The jailbreak's type; a translated one is grouped by its language instead."""
    return f"spikee: {jailbreak_type}" if lang == "en" else f"spikee: in {lang}"


def build(repo: Path, commit: str) -> list[dict[str, Any]]:
    """The rows of the third held-out set: attacks, then the benign controls."""
    source = {"source": f"ReversecLabs/spikee@{commit[:12]}", "license": "Apache-2.0"}
    attacks: list[dict[str, Any]] = []
    benign: list[dict[str, Any]] = []
    seen: set[str] = set()

    def keep(into: list[dict[str, Any]], text: str, **row: str) -> None:
        if len(text) > _MAX_CHARS or not text.strip() or text.strip() in seen:
            return
        seen.add(text.strip())
        into.append({"id": row.pop("id"), **source, **row, "text": text})

    for entry in _lines(git_show(repo, commit, _GENERATED)):
        keep(
            attacks,
            entry["input"],
            id=f"spikee-2024-12-{entry['long_id']}",
            path=_GENERATED,
            channel=_CHANNEL,
            family=_family(entry["jailbreak_type"], entry.get("lang") or "en"),
            label="attack",
        )
    documents: dict[str, str] = {}
    for folder in _SEEDS:
        base = _DATASETS + folder + "/"
        docs = [
            d
            for d in _lines(git_show(repo, commit, base + "base_user_inputs.jsonl"))
            if not d.get("placeholder")
        ]
        instructions = list(_lines(git_show(repo, commit, base + "instructions.jsonl")))
        for jailbreak in _lines(git_show(repo, commit, base + "jailbreaks.jsonl")):
            lang = jailbreak.get("lang", "en")
            same = [i for i in instructions if i.get("lang", "en") == lang]
            for doc in docs:
                documents.setdefault(doc["id"], doc["document"])
                if not same:
                    continue
                key = f"{folder}-{doc['id']}-{jailbreak['id']}"
                instruction = min(same, key=lambda i: _rank(key + str(i["id"])))
                payload = jailbreak["text"].replace("<INSTRUCTION>", instruction["instruction"])
                keep(
                    attacks,
                    doc["document"] + _DELIMITERS.replace("INJECTION_PAYLOAD", payload),
                    id=f"spikee-{key}-{instruction['id']}-end",
                    path=base + "jailbreaks.jsonl",
                    channel=_CHANNEL,
                    family=_family(jailbreak["jailbreak_type"], lang),
                    label="attack",
                )
    for entry in _lines(git_show(repo, commit, _BENIGN)):
        keep(
            benign,
            entry["input"],
            id=f"spikee-false-positive-check-{entry['long_id']}",
            path=_BENIGN,
            channel=_CHANNEL,
            family="none",
            label="benign",
        )
    for name, document in sorted(documents.items()):
        keep(
            benign,
            document,
            id=f"spikee-{name}-clean",
            path=_DATASETS + _SEEDS[0] + "/base_user_inputs.jsonl",
            channel=_CHANNEL,
            family="none",
            label="benign",
        )
    return attacks + benign


@click.command()
@click.option(
    "--repo",
    type=click.Path(path_type=Path, exists=True),
    required=True,
    help="The git directory of a ReversecLabs/spikee clone.",
)
@click.option("--commit", default="454f7a0c21db2dd8779c23408f24700430c71d8b", show_default=True)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path(__file__).parents[1] / "tests" / "data" / "screen_heldout3.jsonl",
    show_default=True,
)
def main(repo: Path, commit: str, out: Path) -> None:
    """Write the third held-out set (never commit it: it is third-party text)."""
    rows = build(repo, commit)
    click.echo(write_set(out, rows))


if __name__ == "__main__":
    main()
