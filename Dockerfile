# logicparse REST service (`logicparse serve`) on a slim Python base, as a non-root user.
#
#   docker build -t logicparse .
#   docker build -t logicparse --build-arg WITH_BENEPAR_EN3=1 .   # also fetch benepar_en3
#   docker run -p 8000:8000 logicparse                             # http://localhost:8000/
#   docker run -p 8000:8000 -e LOGICPARSE_PARSER=benepar_en3 -e LOGICPARSE_WORKERS=2 logicparse
#
# It installs through `make setup`, the one install path of the README and CI.
FROM python:3.11-slim

# 1 = also download the benepar_en3 parser (needs network at build time; ~100 MB).
ARG WITH_BENEPAR_EN3=0
# The CPU build of torch: the default PyPI build pulls several GB of CUDA libraries.
ARG TORCH_SPEC=torch==2.13.0+cpu
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN apt-get update \
    && apt-get install -y --no-install-recommends make \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 --shell /usr/sbin/nologin logicparse \
    && install -d -o logicparse -g logicparse /app

WORKDIR /app
COPY --chown=logicparse:logicparse . /app
USER logicparse

RUN PIP_EXTRA_INDEX_URL="$TORCH_INDEX" make setup PYTHON=python3 TORCH_SPEC="$TORCH_SPEC"
# benepar stores its models as nltk data under the user's home, where load_parser finds them.
RUN if [ "$WITH_BENEPAR_EN3" = "1" ]; then \
        .venv/bin/python -c "import benepar; benepar.download('benepar_en3')"; \
    fi

# Nothing reaches a model hub at run time; the service listens on all interfaces in the container.
ENV PATH=/app/.venv/bin:$PATH \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false \
    LOGICPARSE_HOST=0.0.0.0 \
    LOGICPARSE_PORT=8000

EXPOSE 8000
# /healthz answers once the models are loaded (the port opens after startup), hence start-period.
HEALTHCHECK --interval=30s --timeout=5s --start-period=180s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('LOGICPARSE_PORT', '8000'), timeout=4)" || exit 1

CMD ["logicparse", "serve"]
