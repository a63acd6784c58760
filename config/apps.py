"""The admin app with the site's own default AdminSite (accounts/admin_site.py). Only the dotted
path is named here: the site class is imported by Django once the apps are loaded."""

from __future__ import annotations

from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig


class AdminConfig(DjangoAdminConfig):
    default_site = "accounts.admin_site.CircoloAdminSite"
