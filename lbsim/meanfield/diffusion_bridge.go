package meanfield

import "math"

// bridgeMax returns the maximum over one step of the free (unreflected)
// path of Qbar_1, a Brownian motion with variance 2 per unit time and a
// constant drift, given its values a at the step start and b at the end:
// the maximum of the Brownian bridge from a to b over time dt, sampled
// exactly by inverting its law with the uniform v in [0, 1),
//
//	P(max > m | a, b) = exp(-(m - a)(m - b)/dt),   m >= max(a, b)
//
// (variance sigma^2 = 2: the exponent is -2 (m - a)(m - b)/(sigma^2 dt)),
// so max = (a + b + sqrt((b - a)^2 - 4 dt ln(1 - v)))/2. The drift does not
// change the law of the bridge. The Skorokhod map of the step then pushes
// by max(0, max), which is what SchemeBridge adds to U.
func bridgeMax(a, b, dt, v float64) float64 {
	d := b - a
	return (a + b + math.Sqrt(d*d-4*dt*math.Log1p(-v))) / 2
}
