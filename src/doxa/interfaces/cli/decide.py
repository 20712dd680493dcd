"""The owner's decisions: approve, reject, retract, grant, revoke (each leaves a receipt)."""

from __future__ import annotations

import click

from doxa.interfaces.cli import options
from doxa.interfaces.cli.running import Settings, run
from doxa.interfaces.cli.show import show_receipt
from doxa.model import Relation

__all__ = ["approve", "grant", "reject", "retract", "revoke"]


@click.command()
@click.argument("held_id", metavar="ID")
@click.option(
    "--as",
    "as_relation",
    type=options.Member(Relation, Relation.parse),
    help="Apply this relation instead of the judge's.",
)
@click.pass_obj
def approve(settings: Settings, held_id: str, as_relation: Relation | None) -> None:
    """Approve a held write (the owner's decision)."""
    run(settings, lambda m: show_receipt(settings, m.approve(held_id, as_relation=as_relation)))


@click.command()
@click.argument("held_id", metavar="ID")
@click.option("--reason", default="", help="Why the write is discarded.")
@click.pass_obj
def reject(settings: Settings, held_id: str, reason: str) -> None:
    """Discard a held write (the owner's decision)."""
    run(settings, lambda m: show_receipt(settings, m.reject(held_id, reason=reason)))


@click.command()
@click.argument("fact")
@click.option("--reason", required=True, help="Why the fact was never true.")
@click.pass_obj
def retract(settings: Settings, fact: str, reason: str) -> None:
    """Say a fact was never true; belief in it ends now, nothing is deleted."""
    run(settings, lambda m: show_receipt(settings, m.retract(fact, reason=reason)))


@click.command()
@click.argument("fact")
@click.option("--reason", required=True, help="What you checked: the fact stands on its own.")
@click.pass_obj
def confirm(settings: Settings, fact: str, reason: str) -> None:
    """Say a flagged fact stands on its own; its basis-ended flags clear from now on."""
    run(settings, lambda m: show_receipt(settings, m.confirm(fact, reason=reason)))


@click.command()
@click.argument("kind")
@click.option("--reason", default="granted by the owner", show_default=True)
@click.pass_obj
def grant(settings: Settings, kind: str, reason: str) -> None:
    """Let the judge close facts of KIND without asking."""
    run(settings, lambda m: show_receipt(settings, m.grant(kind, reason=reason)))


@click.command()
@click.argument("kind")
@click.option("--reason", default="revoked by the owner", show_default=True)
@click.pass_obj
def revoke(settings: Settings, kind: str, reason: str) -> None:
    """Take back a grant: closings of KIND wait for the owner again."""
    run(settings, lambda m: show_receipt(settings, m.revoke(kind, reason=reason)))
