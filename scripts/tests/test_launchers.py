"""scripts/ddp-reference.py is a small launcher of the package beside it; a
sweep may run a copy of it (GRADSYNC_DDP_SCRIPT), and a copy without its
package says so in one line, exit status 2, instead of a traceback."""
import os
import shutil
import subprocess
import sys
import unittest

from scriptcase import SCRIPTS, ScriptCase


class Launchers(ScriptCase):
    def test_a_launcher_without_its_package(self):
        lone = shutil.copy(os.path.join(SCRIPTS, "ddp-reference.py"), self.scratch("ddp-reference.py"))
        p = subprocess.run([sys.executable, lone, "--help"], capture_output=True, text=True, timeout=60)
        self.assertOneLineError(p, 2, f"ddp-reference: error: no ddp_reference/ beside {lone}")


if __name__ == "__main__":
    unittest.main()
