"""The three real code bases the stand-in answers as, and how their answers differ.

Every flag names the public file it was read from (repository + path, at the commits of
``tests/real_tenant/__init__.py``). Facts only: none of their code is here.

* **pro9** — ``GersonHA/Pro9`` (Laravel 9, PHP 8).
* **tukifac** — ``dwepCC/facturador-tukifac`` (a Pro9-era fork, Laravel 9, PHP 8).
* **pro5** — ``wcubasdeveloper/facturadorpro5`` (Laravel 5.7, PHP 7).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    """How one code base answers (see each field's source)."""

    name: str
    label: str
    repository: str
    #: ``date_of_issue``/``date_of_due`` of document list rows: ``format('d-m-Y')`` in Pro9 and Tukifac,
    #: ``format('Y-m-d')`` in pro5 (``app/Http/Resources/Tenant/DocumentCollection.php``).
    list_dates: str
    #: ``total`` is cast to a float (``'total' => 'float'`` in ``$casts`` of
    #: ``app/Models/Tenant/Document.php``, Pro9 and Tukifac); the other amounts stay decimal strings.
    total_as_float: bool
    #: List rows carry ``exchange_rate_sale`` and ``filename`` (Pro9/Tukifac ``DocumentCollection.php``).
    list_exchange_rate: bool
    #: Tukifac's list reads the customer from the ``persons`` table (``$row->person->name``), so a
    #: customer renamed later shows its new name (Tukifac ``DocumentCollection.php``).
    list_customer_from_person: bool
    #: ``POST /api/voided`` parses ``fecha_de_emision_de_documentos`` with
    #: ``Carbon::createFromFormat('d-m-Y', ...)`` (Pro9/Tukifac
    #: ``app/CoreFacturalo/Requests/Api/Transform/VoidedTransform.php``); pro5 uses it as sent.
    voided_dates: str
    #: Without ``Accept: application/json`` an unauthenticated request is redirected to ``/login``
    #: (Pro9 ``app/Exceptions/Handler.php``: ``expectsJson()`` else ``redirect()->guest('login')``);
    #: Tukifac/pro5 answer JSON 401 on every API route (``isFrontend()`` is false there).
    redirect_without_json: bool
    #: ``errorResponse`` always adds ``file`` and ``line`` (Tukifac/pro5 ``app/Exceptions/Handler.php``);
    #: Pro9 only with ``APP_DEBUG``.
    error_file_line: bool
    #: PHP 8 says ``Undefined array key "x"``, PHP 7 ``Undefined index: x`` (``composer.json``).
    php8: bool
    #: ``SaleNoteController@lists``: Pro9/Tukifac ``latest()->take(config('tenant.items_per_page'))``
    #: (20, ``config/tenant.php``) filtered by ``input`` on series or number; pro5 ``take(50)`` by series
    #: and number, no filter (``app/Http/Controllers/Tenant/Api/SaleNoteController.php``).
    sale_note_list_size: int
    sale_note_list_filters: bool
    #: ``SaleNoteController@series`` rows: Pro9 ``Series::getApiRowResource`` adds ``is_default`` and
    #: ``establishment_id`` (``app/Models/Tenant/Series.php``); Tukifac the same; pro5 ``id``,
    #: ``document_type_id``, ``number`` only.
    series_row_extras: bool
    #: ``force_create_if_not_exist``: Pro9/Tukifac read ``internal_id``, ``unit_price`` and
    #: ``affectation_igv_type_id`` of each line (or its ``full_item``); pro5 reads ``full_item`` only
    #: (``SaleNoteController@mergeData``).
    sale_note_by_code: str
    #: pro5 reads ``$data['payments']`` unconditionally and validates ``SaleNoteRequest``
    #: (``customer_id``, ``exchange_rate_sale`` numeric, ``currency_type_id``, ``date_of_issue``,
    #: ``series_id``: 422) (pro5 ``SaleNoteController@store``,
    #: ``app/Http/Requests/Tenant/SaleNoteRequest.php``).
    sale_note_requires_payments: bool
    sale_note_form_request: bool
    #: The creation answer adds ``filename``, ``print_ticket``, ``links.pdf`` (Pro9/Tukifac
    #: ``SaleNoteController@store``); pro5 answers ``id``, ``number``, ``external_id``.
    sale_note_answer_extras: bool
    #: ``GET /api/persons/{type}/records`` and ``POST /api/persons/update`` exist (Pro9/Tukifac
    #: ``modules/MobileApp/Routes/api.php``); pro5 has no MobileApp module.
    person_records: bool
    #: ``POST /api/dispatch-carrier``, ``/api/dispatches/send``, ``/status_ticket`` exist (Pro9/Tukifac
    #: ``routes/api.php``, ``modules/Dispatch/Routes/api.php``); not in pro5.
    dispatch_gre: bool
    #: The issuing answer adds ``id``, ``print_ticket``, ``print``, ``data_ws`` (Pro9/Tukifac
    #: ``app/Http/Controllers/Tenant/Api/DocumentController.php@store``).
    document_answer_extras: bool
    #: ``GET /api/document/search-items`` honours ``limit`` (Pro9/Tukifac ``MobileController@searchItems``);
    #: pro5 answers every match.
    search_items_limit: bool
    #: A missing file on ``/downloads/...``: Flysystem 3 ``UnableToRetrieveMetadata`` (Laravel 9
    #: ``FilesystemAdapter::size``) or Flysystem 1 ``FileNotFoundException`` (Laravel 5.7): HTTP 500.
    missing_file_message: str
    #: Laravel 5.7's ``ThrottleRequests`` is not in the middleware priority, so it runs before
    #: ``auth:api`` and keys the limit by domain and IP; Laravel 9 sorts ``Authenticate`` first and keys
    #: it by user (``Illuminate/Routing/Middleware/ThrottleRequests.php``).
    throttle_by_user: bool


PRO9 = Variant(
    name="pro9",
    label="Facturador PRO 9 (GersonHA/Pro9)",
    repository="GersonHA/Pro9",
    list_dates="d-m-Y",
    total_as_float=True,
    list_exchange_rate=True,
    list_customer_from_person=False,
    voided_dates="d-m-Y",
    redirect_without_json=True,
    error_file_line=False,
    php8=True,
    sale_note_list_size=20,
    sale_note_list_filters=True,
    series_row_extras=True,
    sale_note_by_code="internal_id",
    sale_note_requires_payments=False,
    sale_note_form_request=False,
    sale_note_answer_extras=True,
    person_records=True,
    dispatch_gre=True,
    document_answer_extras=True,
    search_items_limit=True,
    missing_file_message="Unable to retrieve the file_size for file at location: {path}.",
    throttle_by_user=True,
)

TUKIFAC = Variant(
    name="tukifac",
    label="Tukifac (dwepCC/facturador-tukifac)",
    repository="dwepCC/facturador-tukifac",
    list_dates="d-m-Y",
    total_as_float=True,
    list_exchange_rate=True,
    list_customer_from_person=True,
    voided_dates="d-m-Y",
    redirect_without_json=False,
    error_file_line=True,
    php8=True,
    sale_note_list_size=20,
    sale_note_list_filters=True,
    series_row_extras=True,
    sale_note_by_code="internal_id",
    sale_note_requires_payments=False,
    sale_note_form_request=False,
    sale_note_answer_extras=True,
    person_records=True,
    dispatch_gre=True,
    document_answer_extras=True,
    search_items_limit=True,
    missing_file_message="Unable to retrieve the file_size for file at location: {path}.",
    throttle_by_user=True,
)

PRO5 = Variant(
    name="pro5",
    label="Facturador PRO 5 (wcubasdeveloper/facturadorpro5)",
    repository="wcubasdeveloper/facturadorpro5",
    list_dates="Y-m-d",
    total_as_float=False,
    list_exchange_rate=False,
    list_customer_from_person=False,
    voided_dates="Y-m-d",
    redirect_without_json=False,
    error_file_line=True,
    php8=False,
    sale_note_list_size=50,
    sale_note_list_filters=False,
    series_row_extras=False,
    sale_note_by_code="full_item",
    sale_note_requires_payments=True,
    sale_note_form_request=True,
    sale_note_answer_extras=False,
    person_records=False,
    dispatch_gre=False,
    document_answer_extras=False,
    search_items_limit=False,
    missing_file_message="File not found at path: {path}",
    throttle_by_user=False,
)

VARIANTS = {variant.name: variant for variant in (PRO9, TUKIFAC, PRO5)}
