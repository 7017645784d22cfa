from input import main

print(main())
