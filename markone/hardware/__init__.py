"""The Mark I Perceptron (1960) as a discrete-event machine built on SimPy."""
