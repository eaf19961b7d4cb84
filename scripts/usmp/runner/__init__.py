"""Build the generated library with a harness and run it on real inputs."""
