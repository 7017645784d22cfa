from retrace_fix.cli import main

main()
