"""flask prune and flask audit prune: rows past their retention deleted in batches (core/retention.py;
docs/operations.md, "Retention")."""
import click
from flask.cli import AppGroup, with_appcontext

from ..core import retention
from ..core.accounts import audit

audit_cli = AppGroup("audit", help="Security audit log.")


@audit_cli.command("prune")
def audit_prune_command():
    """Delete audit entries older than the retention period."""
    removed = audit.prune()
    click.echo(f"Removed {removed} audit entries older than {retention.AUDIT_LOG.days()} days.")


@click.command("prune")
@click.option("--dry-run", is_flag=True, help="Count what would go; delete nothing.")
@click.option("--batch-size", type=click.IntRange(min=1), default=retention.BATCH_SIZE, show_default=True,
              help="Rows deleted per transaction.")
@with_appcontext
def prune_command(dry_run, batch_size):
    """Delete webhook events, share visits, sent or failed e-mail, expired OAuth states and audit entries
    past their retention (settings *_RETENTION_DAYS)."""
    for pruned in retention.prune_all(dry_run=dry_run, batch_size=batch_size):
        click.echo(pruned.line(dry_run))
