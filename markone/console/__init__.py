"""The Mark I console: the browser page's local HTTP server, a layer above the emulation.

The console shows a machine of :mod:`markone.hardware` in a browser: the replay of a
recorded run is one self-contained HTML file (:func:`markone.hardware.replay.write_replay_html`,
``markone machine replay``), and the live console (``markone machine console``) is that
page in front of a :class:`~markone.hardware.live.LiveSession`, served on a loopback
address by :class:`~markone.console.server.ConsoleServer`. The server imports the
emulation; nothing in :mod:`markone.hardware` imports the server
(``tests/design/test_import_graph.py``, ``docs/architecture.md``).

Modules
-------
``server``
    :class:`~markone.console.server.ConsoleServer`: the JSON API of a live session and
    the page, on this computer only (``docs/console.md``).
``playground``
    :class:`~markone.console.playground.Playground`: your own data, the core and the
    Mark I side by side, and a live panel of exact answers from an analyst that
    ``verify`` provides, named by a string (``docs/architecture.md``).
"""

__all__ = []  # type: list[str]
