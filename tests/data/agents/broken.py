raise RuntimeError("the agent module failed on purpose")
