"""Scale-out: pod autoscaling on the engine's queue, node capacity, and the metrics pipeline behind them."""
