// nafsim: discrete-event simulator of network-attached FPGA clusters, on SimGrid.
#include "simcore/app/Cli.hpp"

int main(int argc, char** argv)
{
  return nafsim::app::cli_main(argc, argv);
}
