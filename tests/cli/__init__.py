"""CLI layer: each command family through ``typer.testing.CliRunner`` (the ``cli`` fixture) or
a subprocess: arguments, exit codes, stdout versus stderr, output formats, config and env."""
