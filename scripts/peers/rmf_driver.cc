// rmf_driver.cc: times the JSQ(d) simulator shipped with rmf_tool
// (misc/jsqD_simulate/JSQd_simulate.cc, included from the peer's source
// directory, its main renamed) on one scenario: warmup steps, then timed
// steps of its simulate() (the peer's steady_state() hard-codes 10^5 N warmup
// steps, which overflows an int at N = 10^5).
//
// usage: rmf_jsqd N rho d with|without steps warmup_steps
// prints: steps/s, server-time/s = steps / (1 + rho) per second of wall time
// and server-time/cpu-s, the same per second of the process's CPU time (the peer
// is uniformized with rate N(1 + rho)).
#include <chrono>
#include <ctime>
#define main rmf_main
#include "JSQd_simulate.cc"
#undef main

int main(int argc, char **argv) {
  if (argc != 7) {
    std::cerr << "usage: rmf_jsqd N rho d with|without steps warmup_steps\n";
    return 2;
  }
  int N = atoi(argv[1]), dd = atoi(argv[3]);
  double rho = atof(argv[2]);
  bool without = std::string(argv[4]) == "without";
  long long steps = atoll(argv[5]), warm = atoll(argv[6]);
  JSQd simu(N, rho, 40, dd, without, false);
  const int chunk = 1 << 30;
  for (long long t = 0; t < warm; t += chunk) simu.simulate((int)std::min<long long>(chunk, warm - t));
  auto t0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();
  for (long long t = 0; t < steps; t += chunk) simu.simulate((int)std::min<long long>(chunk, steps - t));
  double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  std::cout << "steps/s " << steps / sec << " server-time/s " << steps / (1 + rho) / sec
            << " server-time/cpu-s " << steps / (1 + rho) / cpu << "\n";
  return 0;
}
