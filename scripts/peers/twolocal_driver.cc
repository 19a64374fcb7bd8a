// twolocal_driver.cc: times Gast's simuTwoLocalChoice (twoChoices_openQueue.cc,
// included from the peer's source directory, its main renamed) on one
// scenario. The peer's own main runs a fixed number of steps with a progress
// display and histograms of every N-th state; this driver calls its class
// directly: warmup steps, then timed steps.
//
// usage: twolocal STRATEGY N rho steps warmup_steps [k]
//   STRATEGY 1 = ring (LOCAL_CHOICE: origin i and i+1), 3 = torus
//   (SQUARE_CHOICE: i and its right or lower neighbour), 5 = random k-regular
//   (FIXED_DEGREE).
// prints: steps/s, server-time/s = steps / (1 + rho) per second of wall time
// and server-time/cpu-s, the same per second of the process's CPU time (the peer
// is uniformized with rate N(1 + rho): arrivals rho N, potential departures N).
#include <chrono>
#include <ctime>
#define main peer_main
#include "twoChoices_openQueue.cc"
#undef main

int main(int argc, char **argv) {
  if (argc < 6) {
    std::cerr << "usage: twolocal STRATEGY N rho steps warmup_steps [k]\n";
    return 2;
  }
  int strategy = atoi(argv[1]), N = atoi(argv[2]);
  double rho = atof(argv[3]);
  long long steps = atoll(argv[4]), warm = atoll(argv[5]);
  double k = argc > 6 ? atof(argv[6]) : 2;
  queue q(N, rho, strategy, k);
  q.iterate(warm);
  auto t0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();
  q.iterate(steps);
  double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  std::cout << "steps/s " << steps / sec << " server-time/s " << steps / (1 + rho) / sec
            << " server-time/cpu-s " << steps / (1 + rho) / cpu << "\n";
  return 0;
}
