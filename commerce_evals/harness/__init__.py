"""What turns a case into a run: task arguments, flow_task, the solver, the customer, chains and
oracle replays, the sandbox."""
