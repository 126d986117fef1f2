"""The web server behind `neurondbg serve`: textual-serve with a guard in front.

    guard.py   which Host, Origin and token a request must carry (no aiohttp here)
    web.py     the aiohttp side: textual-serve's Server with the guard as middleware and
               a cap on concurrent app processes

What the guard protects against and why is in docs/security.md.
"""
