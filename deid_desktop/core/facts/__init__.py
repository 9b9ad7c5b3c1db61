"""Facts about an extract and a release that both the pathways and the gate read.

Below both: ``core.pathways`` builds from these facts, ``core.verify`` checks with them,
and neither imports the other's rules to learn them (pathways never import verify).

- ``text``: the pyarrow string dtype, contiguous Arrow text, vectorised membership;
- ``persons``: table specs, each row's person position, person keys, released IDs;
- ``dates``: date columns parsed once (``DateCache``), earliest date per person;
- ``ages``: who is over 89, and how it was decided (``assess_ages``).
"""
