"""See spec/ for this layer's chapter."""
