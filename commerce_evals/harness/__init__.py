"""What turns a case into a run: the flow table, task arguments, the solver and the event stream."""
