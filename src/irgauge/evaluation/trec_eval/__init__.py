"""The trec_eval drop-in's evaluation and output, trec_eval 10.0's byte for byte:
``output`` reads the inputs and puts the parts together (``trec_eval_output``); the
other modules are its parts. Nothing is imported here, so that the drop-in, which runs
once per run file in scripts, loads only what it uses."""
