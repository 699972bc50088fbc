"""One batch over several devices or a Dask cluster: cutting a batch into chunks of equal cost and
collecting their answers (``chunks``), worker processes per GPU (``multidevice``), Dask workers
(``cluster``), and the process tuning large batches need (``malloc``, ``gcpause``)."""
