"""The web server behind `neurondbg serve`: textual-serve with a guard in front.

    guard.py     which Host, Origin and token a request must carry (no aiohttp here)
    web.py       the aiohttp side: the routes, the page, the guard as middleware and a
                 cap on concurrent app processes
    apps.py      a page's app process (in its visitor's folder) and those started ahead
    waiting.py   what a process started ahead runs until a page takes it
    folders.py   each visitor's own folder for the files it saves
    listen.py    the listening socket, and which hosts are loopback

How it behaves is in docs/serve.md; what the guard protects against and why is in
docs/security.md.
"""
