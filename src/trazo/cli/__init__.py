"""Administrative commands: flask create-admin and flask seed here, flask mail (mail.py), flask audit and flask
prune (maintenance.py)."""
import click
from flask_babel import force_locale
from marshmallow import ValidationError

from ..core.accounts.users import create_or_promote_admin
from ..core.seeding import SEEDERS
from .mail import mail_cli
from .maintenance import audit_cli, prune_command


def register_commands(app):
    app.cli.add_command(audit_cli)
    app.cli.add_command(mail_cli)
    app.cli.add_command(prune_command)

    @app.cli.command("create-admin")
    @click.argument("email")
    @click.option("--password", envvar="TRAZO_ADMIN_PASSWORD", help="Read from TRAZO_ADMIN_PASSWORD if set.")
    @click.option("--full-name", default=None)
    def create_admin(email, password, full_name):
        """Create an administrator, or make an existing account one."""
        if password is None:
            password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
        with force_locale("en"):
            try:
                user, created = create_or_promote_admin(email, password, full_name)
            except ValidationError as exc:
                raise click.ClickException("; ".join(_flatten(exc.messages))) from exc
        click.echo(f"{'Created' if created else 'Promoted'} administrator {user.email} ({user.id})")

    @app.cli.command("seed")
    def seed():
        """Create the default records (idempotent)."""
        with force_locale("en"):
            for func in SEEDERS:
                click.echo(func())
        click.echo("Seed complete.")


def _flatten(messages):
    if isinstance(messages, dict):
        return [f"{key}: {text}" for key, value in messages.items() for text in _flatten(value)]
    if isinstance(messages, list):
        return [text for item in messages for text in _flatten(item)]
    return [str(messages)]
