"""The LangGraph door (docs/langgraph.md): a team's compiled graph mirrored
into the run store, and the LangChain ``create_agent`` middleware.

One job per module: ``values`` (what an interrupt asks, what is handed
back), ``requests`` (what a caller may send: a thread's id, a run's body,
its config), ``bridge`` (a graph's interrupts mirrored as pauses, a run),
``resumes`` (the graph carried on once answered: the claim, the resume, its
retries), ``answers`` (the resume route's work), ``bridges`` (the graphs
this process serves, and the worker's tick), ``listen`` (the engine's
notice of a closed pause), ``views`` and ``urls`` (the routes), and
``middleware``. Every call into the engine is through its facade; the
door's replays are rows of the engine's replay journal (door
``langgraph``, kind ``interrupt``; door ``langchain``, kind ``tool_call``).
"""
