"""The authoring rules over case files, run by `commerce-evals lint`."""
