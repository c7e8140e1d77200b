"""One module per `commerce-evals` command, each with `register(app)`."""
