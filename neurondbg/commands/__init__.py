"""One module per CLI subcommand, each exporting a click command named `command`."""
