import sys

from hpnb.cli import main

sys.exit(main())
