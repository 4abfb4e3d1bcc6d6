// Benchmark program: no resources. `up` and `destroy` of it are the CLI's fixed cost (start, program,
// language host, checkpoint), measured in the same run as the programs that do something.
