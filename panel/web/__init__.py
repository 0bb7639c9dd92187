"""The pages the service serves and the Python drawing code behind them."""
