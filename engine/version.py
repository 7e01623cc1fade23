"""The engine's version, stored with every saved result (`DesignResult.engine_version`).

A saved design keeps its result, but its cabling schedule, rack elevations, labels and graph
check are re-derived from its request and catalog snapshot (a million cables are never stored).
That is only the saved design while the engine still sizes those inputs the same way, so the
stored version is compared with this one before anything is re-derived.

Bump it with any change that makes the same request on the same catalog come out differently:
the sizing, the media choice, the BOM, device or port names, the cabling enumeration, cable
lengths or ids. A new version makes older saved designs refuse re-derivation (in words, pointing
at "re-size with today's catalog"), never change under their quotes. Pure Python: no Django."""

ENGINE_VERSION = "7"
