"""flask mail: the e-mail outbox from the command line (docs/operations.md, "E-mail outbox")."""
import logging
import signal
import threading

import click
from flask import current_app
from flask.cli import AppGroup

from ..core.mail import outbox
from ..core.mail.delivery import deliver_due
from ..extensions import db

log = logging.getLogger("trazo.email")

mail_cli = AppGroup("mail", help="The e-mail outbox (docs/operations.md).")


@mail_cli.command("deliver")
@click.option("--once", is_flag=True, help="Send what is due now, print a summary and exit.")
def deliver_command(once):
    """Send due e-mail in the foreground: until SIGTERM (or Ctrl-C), or once."""
    if once:
        summary = deliver_due(limit=10_000)
        click.echo(f"{summary.sent} sent, {summary.retrying} to retry, {summary.failed} given up.")
        return
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_args: stop.set())
    click.echo(f"Sending e-mail every {current_app.config['OUTBOX_POLL_SECONDS']} s until SIGTERM.")
    while not stop.is_set():
        try:
            deliver_due(stop)
        except Exception:  # the database is away, say: try again at the next poll
            log.exception("the e-mail sender's pass failed")
        db.session.remove()
        stop.wait(current_app.config["OUTBOX_POLL_SECONDS"])
    click.echo("Stopped.")


@mail_cli.command("status")
def status_command():
    """Counts by status, then the messages waiting or given up (recipients masked, never a body)."""
    counts = outbox.counts()
    click.echo(", ".join(f"{status} {count}" for status, count in counts.items()))
    for row in outbox.waiting_or_failed():
        click.echo(f"#{row.id} {row.status} to {row.recipient} \"{row.subject}\" attempts {row.attempts} "
                   f"next {row.next_attempt_at:%Y-%m-%d %H:%M:%S}Z"
                   + (f" last error: {row.last_error}" if row.last_error else ""))


@mail_cli.command("retry")
@click.argument("message_id", type=int, required=False)
@click.option("--failed", "all_failed", is_flag=True, help="Every message that was given up.")
def retry_command(message_id, all_failed):
    """Make a message (or every failed one) due now, with its attempts counted afresh."""
    if (message_id is None) == (not all_failed):
        raise click.UsageError("give a message id or --failed")
    click.echo(f"Requeued {outbox.requeue(message_id)} message(s).")
