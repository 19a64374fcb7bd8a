/*
 * jsq2.c: a tight C loop of JSQ(d) (d = 2 or 3) on N exponential servers of
 * rate 1 with Poisson arrivals of rate lambda*N: the fair "hand-written C"
 * peer of lbsim's per-server engine (scripts/peers/README.md).
 *
 * The chain is uniformized, as a researcher writing it by hand would do: at
 * each step (total rate N(lambda+1)) one random number decides an arrival
 * (probability lambda/(lambda+1)) or a potential departure from a uniform
 * server (nothing happens if it is idle). An arriving task samples d servers
 * uniformly, with or without replacement, and joins the shortest (ties to the
 * first drawn, which is uniform without replacement). The estimates are the
 * time averages q_i = (1/N) E[#servers with >= i tasks], each step weighing
 * its expected holding time 1/(N(lambda+1)), kept per level and brought up to
 * date only when a level's count changes (O(1) per step), as lbsim does.
 *
 * Random numbers: xoshiro256** (Blackman and Vigna), uniform integers by
 * Lemire's multiply-shift on 32-bit halves (bias below N/2^32, ignored).
 *
 * usage: jsq2 N lambda d with|without steps warmup_steps seed
 * prints: steps/s, server-time/s (steps / (lambda+1) per second of wall time),
 * server-time/cpu-s (the same per second of CPU time), q1..q4
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t s[4];

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t next(void) {
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
	s[2] ^= t; s[3] = rotl(s[3], 45);
	return r;
}

static void seed(uint64_t x) { /* splitmix64 */
	for (int i = 0; i < 4; i++) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		s[i] = z ^ (z >> 31);
	}
}

#define LEVELS 64
static int32_t *q;
static int64_t cnt[LEVELS], last[LEVELS];
static double area[LEVELS];
static uint32_t n;

static inline uint32_t bounded(uint32_t x, uint32_t m) { return (uint32_t)(((uint64_t)x * m) >> 32); }

static inline void level(int l, int64_t step, int delta) {
	area[l] += (double)cnt[l] * (double)(step - last[l]);
	last[l] = step;
	cnt[l] += delta;
}

static void run(int64_t from, int64_t steps, uint64_t cut, int d, int with) {
	for (int64_t t = from; t < from + steps; t++) {
		uint64_t x = next();
		if (x < cut) { /* arrival */
			uint64_t y = next();
			uint32_t a = bounded((uint32_t)y, n), b, j;
			if (with) {
				b = bounded((uint32_t)(y >> 32), n);
			} else {
				b = bounded((uint32_t)(y >> 32), n - 1);
				if (b >= a) b++;
			}
			j = q[b] < q[a] ? b : a;
			if (d == 3) {
				uint32_t c;
				do {
					c = bounded((uint32_t)x, n); /* the low half of x: the top decided the event */
					x = next();
				} while (!with && (c == a || c == b));
				if (q[c] < q[j]) j = c;
			}
			if (q[j] + 1 < LEVELS) {
				level(q[j] + 1, t, 1);
				q[j]++;
			}
		} else { /* potential departure */
			uint32_t i = bounded((uint32_t)x, n); /* low half: the top decided the event */
			if (q[i] > 0) {
				level(q[i], t, -1);
				q[i]--;
			}
		}
	}
}

int main(int argc, char **argv) {
	if (argc != 8) {
		fprintf(stderr, "usage: jsq2 N lambda d with|without steps warmup_steps seed\n");
		return 2;
	}
	n = (uint32_t)atol(argv[1]);
	double lambda = atof(argv[2]);
	int d = atoi(argv[3]), with = strcmp(argv[4], "with") == 0;
	int64_t steps = atoll(argv[5]), warm = atoll(argv[6]);
	seed((uint64_t)atoll(argv[7]));
	if (n < 4 || (d != 2 && d != 3)) {
		fprintf(stderr, "jsq2: need N >= 4 and d = 2 or 3\n");
		return 2;
	}
	q = calloc(n, sizeof *q);
	cnt[0] = n;
	/* x < cut is an arrival: probability lambda/(lambda+1). */
	uint64_t cut = (uint64_t)((lambda / (lambda + 1)) * 18446744073709551616.0);
	run(0, warm, cut, d, with);
	for (int l = 0; l < LEVELS; l++) { area[l] = 0; last[l] = warm; }
	struct timespec t0, t1, c0, c1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	run(warm, steps, cut, d, with);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double sec = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
	double cpu = (c1.tv_sec - c0.tv_sec) + 1e-9 * (c1.tv_nsec - c0.tv_nsec);
	int64_t end = warm + steps;
	for (int l = 1; l < LEVELS; l++) level(l, end, 0);
	printf("steps/s %.4g server-time/s %.4g server-time/cpu-s %.4g q1..q4", steps / sec,
	       steps / (lambda + 1) / sec, steps / (lambda + 1) / cpu);
	for (int l = 1; l <= 4; l++) printf(" %.5f", area[l] / ((double)steps * n));
	printf("\n");
	return 0;
}
