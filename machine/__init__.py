"""The neurondbg machine model: numpy + ml_dtypes only, never Textual.

Everything the UI shows is computed here and returned as plain data.
"""
