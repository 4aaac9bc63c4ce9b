#include "jobs/job_child.hpp"

#include <sys/prctl.h>

namespace gpuwatch::jobs {

core::Result<std::unique_ptr<JobChild>> JobChild::start(const std::vector<std::string>& argv,
                                                        const std::vector<std::pair<std::string, std::string>>& env) {
  if (argv.empty()) return core::make_error("no command to run: give it after --", 2);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);  // orphaned workers stay ours (and in the job's tree)
  auto child = host::ChildProcess::start(argv, env);
  if (!child) return child.error();
  return std::unique_ptr<JobChild>(new JobChild(std::move(*child)));
}

}  // namespace gpuwatch::jobs
