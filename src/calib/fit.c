/*
 * The least-squares fit: MINPACK's Levenberg-Marquardt with a forward-
 * difference Jacobian (cminpack's lmdif; Moré, "The Levenberg-Marquardt
 * algorithm: implementation and theory", 1978), the covariance from its
 * R factor at the optimum (covar1). MINPACK has no bounds: each parameter
 * runs as u with x = lo + (hi - lo) (1 + sin u) / 2, MINUIT's transform
 * (James, MINUIT reference manual, 1994), so every x tried lies within its
 * bounds and dx/du carries the standard deviation back to x.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cminpack.h>

#include "calib/calib.h"

struct ctx {
    struct bn_calib_fit *f;
    bn_calib_resid_fn fn;
    void *ud;
    struct bn_error *err;
    int rc;                   /* the callback's error, which stopped the fit */
};

static double to_x(const struct bn_calib_fit *f, uint32_t i, double u)
{
    return f->lo[i] + (f->hi[i] - f->lo[i]) * (1 + sin(u)) / 2;
}

static double to_u(const struct bn_calib_fit *f, uint32_t i, double x)
{
    double s = 2 * (x - f->lo[i]) / (f->hi[i] - f->lo[i]) - 1;
    /* a start on a bound would leave the sine's derivative at 0 */
    s = s > 0.999 ? 0.999 : s < -0.999 ? -0.999 : s;
    return asin(s);
}

static int residuals(void *p, int m, int n, const double *u, double *r, int iflag)
{
    struct ctx *c = p;
    (void)m;
    (void)iflag;
    double x[BN_CALIB_MAX_PARAMS];
    for (int i = 0; i < n; i++)
        x[i] = to_x(c->f, (uint32_t)i, u[i]);
    c->f->evals++;
    c->rc = c->fn(c->ud, x, r, c->err);
    return c->rc == BN_OK ? 0 : -1;
}

int bn_calib_lm(struct bn_calib_fit *f, bn_calib_resid_fn fn, void *ud, struct bn_error *err)
{
    int m = (int)f->m, n = (int)f->n;
    if (n < 1 || n > BN_CALIB_MAX_PARAMS || m < n)
        return bn_fail(err, BN_EINPUT, "%u rows cannot fit %u parameters: give more rows or "
                       "fewer keys", f->m, f->n);
    double *mem = calloc((size_t)m * (n + 2) + 6 * (size_t)n, sizeof *mem);
    int *ipvt = calloc((size_t)n, sizeof *ipvt);
    if (!mem || !ipvt) {
        free(mem);
        free(ipvt);
        return bn_fail(err, BN_ENOMEM, "out of memory");
    }
    double *fvec = mem, *fjac = fvec + m, *wa4 = fjac + (size_t)m * n;
    double *diag = wa4 + m, *qtf = diag + n, *wa1 = qtf + n, *wa2 = wa1 + n, *wa3 = wa2 + n;
    double u[BN_CALIB_MAX_PARAMS];
    for (uint32_t i = 0; i < f->n; i++)
        u[i] = to_u(f, i, f->x[i]);
    struct ctx c = {.f = f, .fn = fn, .ud = ud, .err = err, .rc = BN_OK};
    int nfev = 0;
    f->evals = 0;
    /* a step of 1 % of u for the Jacobian: the simulator's times move in
     * steps of picoseconds, far below what a difference of 1e-8 needs */
    f->info = lmdif(residuals, &c, m, n, u, fvec, 1e-4, 1e-3, 0, (int)f->max_evals, 1e-4, diag, 1,
                    100, 0, &nfev, fjac, m, ipvt, qtf, wa1, wa2, wa3, wa4);
    int rc = c.rc;
    if (rc == BN_OK && f->info == 0)
        rc = bn_fail(err, BN_EINTERNAL, "the fit's inputs are improper (MINPACK lmdif info 0)");
    if (rc == BN_OK) {
        double sum = 0;
        for (int k = 0; k < m; k++)
            sum += fvec[k] * fvec[k];
        f->cost = sum;
        for (uint32_t i = 0; i < f->n; i++)
            f->x[i] = to_x(f, i, u[i]);
        /* covariance of u: sigma^2 (J^T J)^-1, sigma^2 the residuals' variance */
        bool dof = m > n;
        if (dof)
            covar1(m, n, sum, fjac, m, ipvt, 1e-10, wa1);
        for (uint32_t i = 0; i < f->n; i++) {
            double var = dof ? fjac[(size_t)i * m + i] : -1;
            double dxdu = (f->hi[i] - f->lo[i]) / 2 * cos(u[i]);
            f->sigma[i] = var >= 0 ? sqrt(var) * fabs(dxdu) : NAN;
        }
    }
    free(mem);
    free(ipvt);
    return rc;
}
