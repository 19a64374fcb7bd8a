# Binder-compatible image (mybinder.org builds it from this Dockerfile):
#   docker build -t lbsim-notebooks . && docker run --rm -p 8888:8888 lbsim-notebooks
# The install logic is scripts/setup.sh, the same as `make notebook` / `make test` use:
# its apt part runs as root, the rest (Go tools, kernel spec, npm) as the notebook user.
# The exact Go release go.mod and tools/*/go.mod require (GOTOOLCHAIN=local in this image:
# an older cached 1.26 would refuse the modules); TestVersionPinsAgree keeps them in step.
FROM golang:1.26.8-bookworm

ARG NB_USER=jovyan
ARG NB_UID=1000
ENV USER=${NB_USER} \
    NB_USER=${NB_USER} \
    NB_UID=${NB_UID} \
    HOME=/home/${NB_USER}
# Module and build caches owned by the notebook user.
ENV GOPATH=${HOME}/go

RUN useradd --create-home --home-dir ${HOME} --shell /bin/bash --uid ${NB_UID} --user-group ${NB_USER}

COPY --chown=${NB_USER}:${NB_USER} . ${HOME}/lbsim

# Root part: Debian's Jupyter packages (+ nodejs/npm when missing), plus jupyterhub, whose
# jupyterhub-singleuser a JupyterHub deployment launches (mybinder.org itself starts
# jupyter-notebook); no Chromium (only the tests need it).
RUN EXTRA_APT_PACKAGES=jupyterhub LBSIM_NO_BROWSER=1 LBSIM_NO_SLURM=1 bash ${HOME}/lbsim/scripts/setup.sh --system \
 && rm -rf /var/lib/apt/lists/*

USER ${NB_USER}
# User part: gonb/goimports/gopls into ~/lbsim/bin, `go mod download`, the gonb kernel
# spec in ~/.local/share/jupyter (gonb -go_work=~/lbsim: the notebooks import the repository
# with no set-up cell), echarts into ~/lbsim/third_party/node_modules.
RUN bash ${HOME}/lbsim/scripts/setup.sh --user
# Warm the build cache with the project's packages, so the first notebook cell does not
# compile them (about 25 s on Binder's one CPU).
RUN cd ${HOME}/lbsim && go build ./...

# Binder gives one CPU: the notebooks run in quick mode (seconds to a minute each) unless
# a cell runs `%env LBSIM_QUICK=0` (full mode, minutes to an hour).
ENV LBSIM_QUICK=1

WORKDIR ${HOME}/lbsim/notebooks
EXPOSE 8888
# Binder overrides this command with its own. 0.0.0.0 is inside the container (Binder and
# `docker run -p` reach it there); Jupyter's random token, printed in the URL, protects it.
CMD ["jupyter", "notebook", "--ip=0.0.0.0", "--port=8888", "--no-browser"]
