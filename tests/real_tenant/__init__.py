"""A stand-in of real Facturador PRO tenants, built from the public code, and the tests that hold the
connector and the dashboard to it.

The facts come from three public code bases (read with the project's ``search``/``fetch`` tools; none of
their code is copied): ``GersonHA/Pro9`` at 82bbf39, ``dwepCC/facturador-tukifac`` at 907405b and
``wcubasdeveloper/facturadorpro5`` at ea1ecdd, and Laravel's own ``laravel/framework`` (v9.52.21 and
v5.7.29, the versions their ``composer.lock`` pin) for what the framework does around them.

* ``variants.py`` — the three variants and each quirk with the file it comes from;
* ``tenant.py`` — what a tenant holds and what each endpoint does with it, messages included;
* ``server.py`` — routing, token, rate limit and exception handler over HTTP on loopback;
* ``seed.py`` — a month of history to list, void, register and analyse.
"""
