"""``python -m zeromem_cli``: the same entry point as the ``zeromem`` command."""

from zeromem_cli.entry import main

if __name__ == "__main__":
    main()
