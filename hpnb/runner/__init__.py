"""The driver side of hpnb: runs trials on an executor, streams results into the store."""
