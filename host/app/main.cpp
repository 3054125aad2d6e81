// hami-scheduler: see app/scheduler_app.hpp for the command line.
#include "app/scheduler_app.hpp"

int main(int argc, char** argv) {
  hami::app::SchedulerApp app;
  return app.run_command_line(argc, argv);
}
