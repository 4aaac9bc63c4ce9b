#include "cli/app.hpp"

int main(int argc, char** argv) { return gpuwatch::cli::run_app(argc, argv); }
