"""Build ``tests/data/screen_heldout4.jsonl``: a fourth held-out set, from CyberSecEval 2.

Run ``python bench/make_screen_heldout4.py --repo PURPLELLAMA_GIT_DIR``. CyberSecEval 2
(Bhatt et al. 2024, Meta, ``meta-llama/PurpleLlama``, ``CybersecurityBenchmarks``, MIT) has a
prompt-injection benchmark (``datasets/prompt_injection/prompt_injection.json``): 251 cases,
each a system prompt the model is to keep (a secret, a topic, a format) and a ``user_input``
that tries to make it break it, in fifteen variants (ignore previous instructions, system
mode, token smuggling, payload splitting, few- and many-shot, persuasion, hypothetical
scenarios, virtualization, indirect reference, output formatting, overload with
information, repeated tokens, mixed techniques, another language) and two types: *direct*
(the input is the attack) and *indirect* (the attack sits inside content the input carries,
a document or code to read). Its authors are none of garak's, AgentDojo's, BIPIA's or
spikee's.

Each row is one ``user_input`` as outside text: what a page, a file or a tool result would
hand the assistant if it carried the attack. The set has **attacks only** (the benchmark has
no benign inputs); the benign side is measured on every other set's controls and on
``tests/data/screen_benign_hard.jsonl``. The file is read with ``git show`` from a pinned
commit and parsed as JSON; the benchmark's code is never imported or run. Repeated inputs are
kept once. Labels are the benchmark's (every case is an attack), never the screen's. The
file is third-party text and is never committed (``.git/info/exclude``); this script is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from screen_sets import git_show, write_set

_PATH = "CybersecurityBenchmarks/datasets/prompt_injection/prompt_injection.json"
_MAX_CHARS = 4000  # what doxa takes as one outside text


def build(repo: Path, commit: str) -> list[dict[str, Any]]:
    """The rows, in the benchmark's order, each input once."""
    raw = git_show(repo, commit, _PATH)
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for case in json.loads(raw):
        text = case["user_input"]
        key = " ".join(text.split())
        if key in seen or len(text) > _MAX_CHARS:
            continue
        seen.add(key)
        rows.append(
            {
                "id": f"cyberseceval2-pi-{case['prompt_id']}",
                "source": f"meta-llama/PurpleLlama@{commit[:12]}",
                "license": "MIT",
                "path": _PATH,
                "channel": "document" if case["injection_type"] == "indirect" else "web",
                "family": f"cyberseceval2: {case['injection_type']} {case['injection_variant']}",
                "label": "attack",
                "text": text,
            }
        )
    return rows


@click.command()
@click.option(
    "--repo",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    required=True,
    help="The git directory of a meta-llama/PurpleLlama clone.",
)
@click.option("--commit", default="4be64c3a24442b51c76175e6ec67722cc3f5fe38", show_default=True)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path(__file__).parents[1] / "tests" / "data" / "screen_heldout4.jsonl",
    show_default=True,
)
def main(repo: Path, commit: str, out: Path) -> None:
    """Write the fourth held-out set (never commit it: it is third-party text)."""
    rows = build(repo, commit)
    click.echo(write_set(out, rows))


if __name__ == "__main__":
    main()
